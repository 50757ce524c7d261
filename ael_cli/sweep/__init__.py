"""`ael-lab sweep`: a grid of independent runs on every core or on a Dask cluster,
into one SQLite store per sweep that a killed sweep resumes from."""
