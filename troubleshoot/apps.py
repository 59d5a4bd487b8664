from django.apps import AppConfig


class TroubleshootConfig(AppConfig):
    name = "troubleshoot"
    verbose_name = "Troubleshoot KB"
    default_auto_field = "django.db.models.BigAutoField"
