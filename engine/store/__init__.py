"""What the lab writes and reads back: saves, caches, documents a user hands us.

    persistence.py     sessions on disk: one JSON document, written atomically, never pickle
    session_schema.py  the explicit schema of a save, assembled with each extension's own model
    schema_types.py    the building blocks every model of saved state uses
    documents.py       reading a document a user hands us: capped, parsed, bounded, validated
    atomic.py          atomic JSON files: a crash leaves the old file or the new one
    cache_files.py     files the lab writes for itself and reads back whole
    cache_mac.py       the keyed MAC a cache file must carry (its key kept outside the cache folder)
"""
