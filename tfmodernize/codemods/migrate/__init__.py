"""TFM1xx: TF1 code migrated to TF2 (the catalogue's ``migrate`` family)."""
