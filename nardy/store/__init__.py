"""Storage: SQLAlchemy models, the database engine, migrations and repositories."""
