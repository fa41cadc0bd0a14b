"""WB-95 (Taktyka i Strategia): Korsun 1944, Kursk 1943. Modules follow the rulebook:
sequence/flow 2.0, movement 3.0, stacking 3.2, zoc 4.1-4.2, control 4.3."""
