from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from troubleshoot import views
from troubleshoot.learning import views as learning
from troubleshoot.metrics import metrics_view

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
    path("match/", views.match, name="match"),
    path("match/save/", views.paste_save, name="paste-save"),
    path("pastes/<str:paste_id>/", views.paste_view, name="paste"),
    path("feedback/", views.feedback_submit, name="feedback"),
    path("analyses/new/", views.analysis_new, name="analysis-new"),
    path("analyses/<str:analysis_id>/", views.analysis_report, name="analysis"),
    path("articles/<slug:slug>/", views.article, name="article"),
    path("unanswered/", learning.queue, name="unanswered"),
    path("unanswered/<int:entry_id>/attach/", learning.attach, name="unanswered-attach"),
    path("unanswered/<int:entry_id>/draft/", learning.draft, name="unanswered-draft"),
    path("unanswered/<int:entry_id>/dismiss/", learning.dismiss, name="unanswered-dismiss"),
    path("about/learning/", learning.about_learning, name="learning"),
    path("components/", views.components, name="components"),
    path("components/<slug:slug>/", views.component, name="component"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("troubleshoot.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("admin/", admin.site.urls),
]
