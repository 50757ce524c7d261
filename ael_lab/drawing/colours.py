"""Colours by name, without Rich: the lab names its colours as Rich does ("cyan", "grey50",
"bright_green"), and a picture drawn as SVG outside the lab needs each as #rrggbb. `NAMED` is
Rich's table of names with the hex of its standard palette (the colours the lab shows on a
terminal with Rich's default theme), written out here so `ael-lab chart` and a notebook's
pictures load no Rich; tests/unit/test_charts_svg.py holds it equal to Rich's own parse.

The arms' colours live here too: an arm's name in the posteriors table, its curve in the
densities and its cells in the strip (the lab's and the SVG's) share one."""

from __future__ import annotations

import re

INK = "#d8dee9"  # what an unknown colour is drawn in: the pictures' ink

# (plotext name, the same ANSI colour by name): an arm's curve in the densities, its name in the
# posteriors table and its cells in the strip share it, so the table is the densities' legend (a
# legend of ten names would cover the plot) and the strip's key. No green and no red: those say
# approved and rejected (the strip's marks), and an arm in either read as a decision on the projector
ARM_COLOURS = (("cyan", "cyan"), ("orange", "yellow"), ("magenta", "magenta"), ("blue+", "bright_blue"),
               ("white", "white"), ("blue", "blue"), ("magenta+", "bright_magenta"), ("cyan+", "bright_cyan"),
               ("orange+", "bright_yellow"), ("white+", "bright_white"), ("orange", "dark_orange"),
               ("magenta", "orchid"))  # the first six far apart; twelve, so the synthetic world's 11 arms differ
DECISION_COLOURS = ("green", "bright_green", "red", "bright_red")  # never an arm's


def arm_colour(index: int) -> tuple[str, str]:
    return ARM_COLOURS[index % len(ARM_COLOURS)]


def arm_colours(runs) -> dict[str, str]:
    """Arm -> its colour name: the posteriors table's, by position in the first run's pool
    (every run of a comparison starts from the same pool); arms only a later run added
    take the next colours."""
    names: list[str] = []
    for d in runs:
        names += [a for a in d.arms if a not in names]
    return {a: arm_colour(i)[1] for i, a in enumerate(names)}


_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def hex_of(colour: str) -> str:
    """A colour name (or #rrggbb) as #rrggbb; an unknown one: the ink colour."""
    text = colour.strip().lower() if isinstance(colour, str) else ""
    if _HEX.fullmatch(text):
        return text
    return NAMED.get(text, INK)


NAMED = {
    "black": "#000000", "red": "#800000", "green": "#008000", "yellow": "#808000", "blue": "#000080",
    "magenta": "#800080", "cyan": "#008080", "white": "#c0c0c0", "bright_black": "#808080",
    "bright_red": "#ff0000", "bright_green": "#00ff00", "bright_yellow": "#ffff00", "bright_blue": "#0000ff",
    "bright_magenta": "#ff00ff", "bright_cyan": "#00ffff", "bright_white": "#ffffff", "grey0": "#000000",
    "gray0": "#000000", "navy_blue": "#00005f", "dark_blue": "#000087", "blue3": "#0000d7", "blue1": "#0000ff",
    "dark_green": "#005f00", "deep_sky_blue4": "#005faf", "dodger_blue3": "#005fd7", "dodger_blue2": "#005fff",
    "green4": "#008700", "spring_green4": "#00875f", "turquoise4": "#008787", "deep_sky_blue3": "#0087d7",
    "dodger_blue1": "#0087ff", "dark_cyan": "#00af87", "light_sea_green": "#00afaf",
    "deep_sky_blue2": "#00afd7", "deep_sky_blue1": "#00afff", "green3": "#00d700", "spring_green3": "#00d75f",
    "cyan3": "#00d7af", "dark_turquoise": "#00d7d7", "turquoise2": "#00d7ff", "green1": "#00ff00",
    "spring_green2": "#00ff5f", "spring_green1": "#00ff87", "medium_spring_green": "#00ffaf",
    "cyan2": "#00ffd7", "cyan1": "#00ffff", "purple4": "#5f00af", "purple3": "#5f00d7",
    "blue_violet": "#5f00ff", "grey37": "#5f5f5f", "gray37": "#5f5f5f", "medium_purple4": "#5f5f87",
    "slate_blue3": "#5f5fd7", "royal_blue1": "#5f5fff", "chartreuse4": "#5f8700", "pale_turquoise4": "#5f8787",
    "steel_blue": "#5f87af", "steel_blue3": "#5f87d7", "cornflower_blue": "#5f87ff",
    "dark_sea_green4": "#5faf5f", "cadet_blue": "#5fafaf", "sky_blue3": "#5fafd7", "chartreuse3": "#5fd700",
    "sea_green3": "#5fd787", "aquamarine3": "#5fd7af", "medium_turquoise": "#5fd7d7", "steel_blue1": "#5fd7ff",
    "sea_green2": "#5fff5f", "sea_green1": "#5fffaf", "dark_slate_gray2": "#5fffff", "dark_red": "#870000",
    "dark_magenta": "#8700af", "orange4": "#875f00", "light_pink4": "#875f5f", "plum4": "#875f87",
    "medium_purple3": "#875fd7", "slate_blue1": "#875fff", "wheat4": "#87875f", "grey53": "#878787",
    "gray53": "#878787", "light_slate_grey": "#8787af", "light_slate_gray": "#8787af",
    "medium_purple": "#8787d7", "light_slate_blue": "#8787ff", "yellow4": "#87af00",
    "dark_sea_green": "#87af87", "light_sky_blue3": "#87afd7", "sky_blue2": "#87afff",
    "chartreuse2": "#87d700", "pale_green3": "#87d787", "dark_slate_gray3": "#87d7d7", "sky_blue1": "#87d7ff",
    "chartreuse1": "#87ff00", "light_green": "#87ff87", "aquamarine1": "#87ffd7",
    "dark_slate_gray1": "#87ffff", "deep_pink4": "#af005f", "medium_violet_red": "#af0087",
    "dark_violet": "#af00d7", "purple": "#af00ff", "medium_orchid3": "#af5faf", "medium_orchid": "#af5fd7",
    "dark_goldenrod": "#af8700", "rosy_brown": "#af8787", "grey63": "#af87af", "gray63": "#af87af",
    "medium_purple2": "#af87d7", "medium_purple1": "#af87ff", "dark_khaki": "#afaf5f",
    "navajo_white3": "#afaf87", "grey69": "#afafaf", "gray69": "#afafaf", "light_steel_blue3": "#afafd7",
    "light_steel_blue": "#afafff", "dark_olive_green3": "#afd75f", "dark_sea_green3": "#afd787",
    "light_cyan3": "#afd7d7", "light_sky_blue1": "#afd7ff", "green_yellow": "#afff00",
    "dark_olive_green2": "#afff5f", "pale_green1": "#afff87", "dark_sea_green2": "#afffaf",
    "pale_turquoise1": "#afffff", "red3": "#d70000", "deep_pink3": "#d70087", "magenta3": "#d700d7",
    "dark_orange3": "#d75f00", "indian_red": "#d75f5f", "hot_pink3": "#d75f87", "hot_pink2": "#d75faf",
    "orchid": "#d75fd7", "orange3": "#d78700", "light_salmon3": "#d7875f", "light_pink3": "#d78787",
    "pink3": "#d787af", "plum3": "#d787d7", "violet": "#d787ff", "gold3": "#d7af00",
    "light_goldenrod3": "#d7af5f", "tan": "#d7af87", "misty_rose3": "#d7afaf", "thistle3": "#d7afd7",
    "plum2": "#d7afff", "yellow3": "#d7d700", "khaki3": "#d7d75f", "light_yellow3": "#d7d7af",
    "grey84": "#d7d7d7", "gray84": "#d7d7d7", "light_steel_blue1": "#d7d7ff", "yellow2": "#d7ff00",
    "dark_olive_green1": "#d7ff87", "dark_sea_green1": "#d7ffaf", "honeydew2": "#d7ffd7",
    "light_cyan1": "#d7ffff", "red1": "#ff0000", "deep_pink2": "#ff005f", "deep_pink1": "#ff00af",
    "magenta2": "#ff00d7", "magenta1": "#ff00ff", "orange_red1": "#ff5f00", "indian_red1": "#ff5f87",
    "hot_pink": "#ff5fd7", "medium_orchid1": "#ff5fff", "dark_orange": "#ff8700", "salmon1": "#ff875f",
    "light_coral": "#ff8787", "pale_violet_red1": "#ff87af", "orchid2": "#ff87d7", "orchid1": "#ff87ff",
    "orange1": "#ffaf00", "sandy_brown": "#ffaf5f", "light_salmon1": "#ffaf87", "light_pink1": "#ffafaf",
    "pink1": "#ffafd7", "plum1": "#ffafff", "gold1": "#ffd700", "light_goldenrod2": "#ffd787",
    "navajo_white1": "#ffd7af", "misty_rose1": "#ffd7d7", "thistle1": "#ffd7ff", "yellow1": "#ffff00",
    "light_goldenrod1": "#ffff5f", "khaki1": "#ffff87", "wheat1": "#ffffaf", "cornsilk1": "#ffffd7",
    "grey100": "#ffffff", "gray100": "#ffffff", "grey3": "#080808", "gray3": "#080808", "grey7": "#121212",
    "gray7": "#121212", "grey11": "#1c1c1c", "gray11": "#1c1c1c", "grey15": "#262626", "gray15": "#262626",
    "grey19": "#303030", "gray19": "#303030", "grey23": "#3a3a3a", "gray23": "#3a3a3a", "grey27": "#444444",
    "gray27": "#444444", "grey30": "#4e4e4e", "gray30": "#4e4e4e", "grey35": "#585858", "gray35": "#585858",
    "grey39": "#626262", "gray39": "#626262", "grey42": "#6c6c6c", "gray42": "#6c6c6c", "grey46": "#767676",
    "gray46": "#767676", "grey50": "#808080", "gray50": "#808080", "grey54": "#8a8a8a", "gray54": "#8a8a8a",
    "grey58": "#949494", "gray58": "#949494", "grey62": "#9e9e9e", "gray62": "#9e9e9e", "grey66": "#a8a8a8",
    "gray66": "#a8a8a8", "grey70": "#b2b2b2", "gray70": "#b2b2b2", "grey74": "#bcbcbc", "gray74": "#bcbcbc",
    "grey78": "#c6c6c6", "gray78": "#c6c6c6", "grey82": "#d0d0d0", "gray82": "#d0d0d0", "grey85": "#dadada",
    "gray85": "#dadada", "grey89": "#e4e4e4", "gray89": "#e4e4e4", "grey93": "#eeeeee", "gray93": "#eeeeee",
}
