"""``nehanda doctor --exam``: how well the model calls tools on this server, native against
rescue, measured on a short fixed set of tasks (``tasks``, data only), each sent through
the provider layer as a run would send it (``runner``), checked without running any tool
(``scoring``), summed up and compared (``summary``, ``verdict``), shown (``report``) and,
when asked, saved as the provider's mode (``save``).

Nothing is imported here: the exam loads only when ``doctor --exam`` runs.
"""
