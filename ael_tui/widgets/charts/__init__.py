"""The pictures: which policy played when, cumulative reward and regret, per-regime bars,
and each drawn alone as SVG (data.py the numbers, reads.py from a session, picture_svg.py the
writer, the widgets beside them)."""
