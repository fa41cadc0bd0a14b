"""The built-in WB-95 opponent of issue #23 (bot/systems/wb95/ai/opponent.py), in small
parts: what the side sees of the enemy (sight.py), what the scenario rewards (aims.py),
the odds a planned attack would get (reckon.py), the Movement Phase planned as a whole
(plan.py), the Combat Phase (battle.py), air and barrage (airplay.py) and decisions
(answers.py). The opponent of issue 7 stays as the baseline (bot/systems/wb95/opponent.py,
level 0 of `kessel duel`)."""
