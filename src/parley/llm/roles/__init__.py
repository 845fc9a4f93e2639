"""LLM-backed roles built on `parley.llm.Role` beyond the O13 ones (ProMediate participants,
mediators and measurement roles); import them from `parley.llm.promediate`."""
