"""SPI's Army Group South -- Korsun (system id `ags`): the rules as pure functions over
data the `scenarios.ags` package loads. Modules follow the rulebook's sections and cite
cases as `AGS 9.4` (standard rules), `AGS-K 19.5` (Korsun exclusive rules) and the
project's rulings `A0`-`A43` (RULINGS-AGS.md) and `K120`+ (docs/rulings.md)."""
