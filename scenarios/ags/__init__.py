"""Data of SPI's Army Group South -- Korsun (system `ags`): the tables, counters, map and
scenario files validated (pydantic) and turned into the `engine.ags` objects. Nothing in
engine/ reads a file; this package does, and hands the engine finished objects."""
