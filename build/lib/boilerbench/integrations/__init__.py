"""Steps that put boilerbench's extraction into other tools' pipelines (datatrove)."""
