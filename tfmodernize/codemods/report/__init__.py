"""TFM3xx: findings only, nothing rewritten (the catalogue's ``report`` family)."""
