"""Gradient-boosted label ranking: held-out tau after each round with staged_predict (to see
how many rounds pay), and which features the splits gained most on."""

from lrank import GradientBoostingLabelRanker
from lrank.datasets import load_wine
from lrank.metrics import kendall_tau
from sklearn.model_selection import train_test_split

data = load_wine()
X, y = data.feature_matrix(), data.rankings
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
gblr = GradientBoostingLabelRanker(n_estimators=60, max_depth=3, min_samples_leaf=5, random_state=0)
gblr.fit(X_train, y_train)

# One prediction per round, each round's trees added to the last (every tree walked once).
taus = [kendall_tau(y_test, ranks) for ranks in gblr.staged_predict(X_test)]
best = max(range(len(taus)), key=taus.__getitem__)
print(f"held-out tau: round 1 {taus[0]:.3f}, round {best + 1} {taus[best]:.3f}, round {len(taus)} {taus[-1]:.3f}")

# Each feature's share of the splits' gain on the loss (LightGBM's "gain" importance).
shares = sorted(zip(data.feature_names(), gblr.feature_importances_), key=lambda p: -p[1])
print("gain shares:", ", ".join(f"{name} {share:.2f}" for name, share in shares[:3]))
