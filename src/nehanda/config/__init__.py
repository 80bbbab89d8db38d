"""Settings layers, provider profiles and folder trust: what the user and the project chose.

Nothing here imports a tool, a permission check or a provider adapter; permission rules
stay strings (with the file and line they were written on) until ``permissions`` reads them.
"""
