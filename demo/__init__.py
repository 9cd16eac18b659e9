"""The demo: realistic campaigns of every MMRB2 kind (and two Omni kinds), made in seconds, offline.

Photographs come from scikit-image's bundled sample images; several fictional "models" edit them
with Pillow, each with its own strengths and faults, so annotators can genuinely prefer one side.
Everything here is plain Python without Django: ``build.build_demo`` writes concord-format JSONL
files and a media folder, and ``demo.services`` imports them (and creates the demo accounts), run by
``manage.py seed_demo``.

May import: ``curation``, ``annotation`` and ``core`` (it seeds them all); nothing imports it.
"""
