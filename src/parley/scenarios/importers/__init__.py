"""Importers turning other formats into parley scenarios: public datasets (CaSiNo, LAMEN, ProMediate),
scorable games (LLM-Deliberation, TextArena) and GENIUS / GeniusWeb files. `parley.scenarios.sources`
detects which one a path needs."""
