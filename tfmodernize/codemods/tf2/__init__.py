"""TFM2xx: TF2 anti-patterns fixed (the catalogue's ``tf2`` family)."""
