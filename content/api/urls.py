"""The content API, version 1 (mounted at ``/api/v1/`` under the namespace ``v1``)."""

from rest_framework.routers import DefaultRouter

from . import views


class Router(DefaultRouter):
    APIRootView = views.APIRootView


router = Router()
router.register("periods", views.PeriodViewSet, basename="period")
router.register("themes", views.ThemeViewSet, basename="theme")
router.register("collections", views.CollectionViewSet, basename="collection")
router.register("tags", views.TagViewSet, basename="tag")
router.register("symbols", views.SymbolViewSet, basename="symbol")
router.register("symbol-sets", views.SymbolSetViewSet, basename="symbol-set")
router.register("activity-cards", views.ActivityCardViewSet, basename="activity-card")
router.register("knowledge-questions", views.KnowledgeQuestionViewSet, basename="knowledge-question")

urlpatterns = router.urls
