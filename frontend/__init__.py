"""Server-rendered pages: the annotator's workspace, the curator console, dashboards, imports and releases.

Templates and plain ES modules; views validate, call one service or selector and render. No business logic.

May import: ``curation``, ``annotation`` and ``core``; never ``demo`` or ``config``.
"""
