from django.urls import path

from troubleshoot.api import unanswered, views
from troubleshoot.api.slack_views import SlackCommandView

urlpatterns = [
    path("articles/", views.ArticleList.as_view(), name="api-articles"),
    path("articles/<slug:slug>/", views.ArticleDetail.as_view(), name="api-article"),
    path("articles/<slug:slug>/revisions/", views.RevisionList.as_view(), name="api-revisions"),
    path("articles/<slug:slug>/revisions/<int:number>/restore/", views.RevisionRestore.as_view(),
         name="api-revision-restore"),
    path("components/", views.ComponentList.as_view(), name="api-components"),
    path("match/", views.MatchView.as_view(), name="api-match"),
    path("feedback/", views.FeedbackView.as_view(), name="api-feedback"),
    path("analyses/", views.AnalysisCreate.as_view(), name="api-analyses"),
    path("analyses/<str:analysis_id>/", views.AnalysisDetail.as_view(), name="api-analysis"),
    path("unanswered/", unanswered.UnansweredList.as_view(), name="api-unanswered"),
    path("unanswered/<int:entry_id>/", unanswered.UnansweredDetail.as_view(), name="api-unanswered-entry"),
    path("unanswered/<int:entry_id>/attach/", unanswered.UnansweredAttach.as_view(), name="api-unanswered-attach"),
    path("unanswered/<int:entry_id>/draft/", unanswered.UnansweredDraft.as_view(), name="api-unanswered-draft"),
    path("unanswered/<int:entry_id>/dismiss/", unanswered.UnansweredDismiss.as_view(),
         name="api-unanswered-dismiss"),
    path("integrations/slack/command", SlackCommandView.as_view(), name="slack-command"),
]
