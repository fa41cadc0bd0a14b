"""The Discord adapter (issue #8): slash commands, private inputs, decision buttons and
notifications over the referee service (`bot.service`). Thin: parse, call the service,
present; every rule decision is the service's and the engine's."""
