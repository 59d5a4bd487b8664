"""Commands that read or write the database stop with a clear message when it has not been migrated yet,
instead of a traceback from the first query ("no such table")."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor


def require_schema(using: str = DEFAULT_DB_ALIAS) -> None:
    connection = connections[using]
    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        name = connection.settings_dict.get("NAME")
        raise CommandError(f"the database {name} is not migrated ({len(pending)} migration(s) pending): "
                           "run `python manage.py migrate` first (`make run` does it for you)")


class SchemaCommand(BaseCommand):
    """A command whose ``handle`` needs the migrated schema."""

    def execute(self, *args, **options):  # type: ignore[no-untyped-def]
        require_schema()
        return super().execute(*args, **options)
