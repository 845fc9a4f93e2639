"""Importers turning public negotiation datasets (CaSiNo, LAMEN, ...) into parley scenarios."""
