"""scikit-learn's metadata routing for lrank's estimators and scorers: ``set_fit_request``,
``set_score_request`` and ``get_metadata_routing``.

With ``sklearn.set_config(enable_metadata_routing=True)``, scikit-learn's meta-estimators and
model selection (``cross_validate(..., params={"sample_weight": w})``, ``GridSearchCV``,
``Pipeline``) pass ``sample_weight`` only to estimators that request it, and ask each estimator
for its requests through ``get_metadata_routing()``. scikit-learn's own estimators get these
methods from ``BaseEstimator``, which lrank's do not inherit (see :mod:`lrank.estimators.base`);
this mixin gives them the same methods, and lrank's scorers (:func:`lrank.metrics.get_scorer`)
their ``set_score_request``. The requests are a plain dict (pickles without
scikit-learn); scikit-learn is imported only when they are set or read, which happens only
where routing is in use.
"""

from __future__ import annotations

from typing import Any, ClassVar

# scikit-learn's "leave this request as it is" (sklearn.utils.metadata_routing.UNCHANGED).
_UNCHANGED = "$UNCHANGED$"


def _set_request(est: MetadataRequests, method: str, requests: dict[str, Any]) -> Any:
    import sklearn
    from sklearn.utils.metadata_routing import MetadataRequest

    if not sklearn.get_config().get("enable_metadata_routing", False):
        raise RuntimeError(
            "This method is only available when metadata routing is enabled. You can enable it "
            "using sklearn.set_config(enable_metadata_routing=True)."
        )
    if method not in est._metadata_params:
        raise AttributeError(f"{type(est).__name__} has no set_{method}_request (its {method} takes no metadata)")
    stored = dict(getattr(est, "_metadata_requests", {}).get(method, {}))
    for param, alias in requests.items():
        if alias == _UNCHANGED:
            continue
        # scikit-learn's own check of the value (True, False, None or an alias name).
        getattr(MetadataRequest(owner=est._routing_owner()), method).add_request(param=param, alias=alias)
        stored[param] = True if alias == param else alias
    est._metadata_requests = {**getattr(est, "_metadata_requests", {}), method: stored}
    return est


class MetadataRequests:
    """scikit-learn's metadata-routing methods, for the metadata of ``_metadata_params`` (an
    estimator takes ``sample_weight`` in ``fit`` and ``score``)."""

    # The metadata each method takes, as scikit-learn would find it in the method's signature.
    _metadata_params: ClassVar[dict[str, tuple[str, ...]]] = {"fit": ("sample_weight",), "score": ("sample_weight",)}
    # What set_*_request set, per method and metadata (absent: scikit-learn's default, None).
    _metadata_requests: dict[str, dict[str, Any]]

    def _routing_owner(self) -> str:
        """How scikit-learn's routing messages name the object."""
        return type(self).__name__

    def set_fit_request(self, *, sample_weight: Any = _UNCHANGED) -> Any:
        """Whether ``fit`` gets ``sample_weight`` when scikit-learn routes metadata: True, False,
        None (an error if given, the default) or the name it is passed under. Returns self."""
        return _set_request(self, "fit", {"sample_weight": sample_weight})

    def set_score_request(self, *, sample_weight: Any = _UNCHANGED) -> Any:
        """Whether ``score`` gets ``sample_weight`` when scikit-learn routes metadata (as
        :meth:`set_fit_request`). Returns self."""
        return _set_request(self, "score", {"sample_weight": sample_weight})

    @property
    def _metadata_request(self) -> Any:
        # scikit-learn 1.6's scorer of ``estimator.score`` reads the requests here, where
        # scikit-learn's own estimators keep them, instead of asking get_metadata_routing.
        return self.get_metadata_routing()

    def get_metadata_routing(self) -> Any:
        """The estimator's requests, a ``sklearn.utils.metadata_routing.MetadataRequest``."""
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=self._routing_owner())
        set_requests = getattr(self, "_metadata_requests", {})
        for method, params in self._metadata_params.items():
            for param in params:
                getattr(request, method).add_request(param=param, alias=set_requests.get(method, {}).get(param))
        return request
