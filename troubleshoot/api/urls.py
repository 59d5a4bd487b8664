from django.urls import path

from troubleshoot.api import views

urlpatterns = [
    path("articles/", views.ArticleList.as_view(), name="api-articles"),
    path("articles/<slug:slug>/", views.ArticleDetail.as_view(), name="api-article"),
    path("components/", views.ComponentList.as_view(), name="api-components"),
    path("match/", views.MatchView.as_view(), name="api-match"),
    path("analyses/", views.AnalysisCreate.as_view(), name="api-analyses"),
    path("analyses/<str:analysis_id>/", views.AnalysisDetail.as_view(), name="api-analysis"),
]
