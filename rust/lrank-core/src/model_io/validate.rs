//! Structural checks of a decoded model: a JSON model file can be edited by hand, so a model
//! read from a file is checked before use (tree links, sizes, rankings), and an inconsistent
//! one is refused with a message instead of failing (or panicking) at prediction time.

use crate::bagging::BaggingModel;
use crate::model_io::Model;
use crate::ranking::validate_ranking;
use crate::rpc::Encoding;
use crate::tree::{Node, Tree};

type Check = std::result::Result<(), String>;

fn complete_ranking(r: &[i32], m: usize, what: &str) -> Check {
    if r.len() != m {
        return Err(format!("{what} has {} positions for {m} labels", r.len()));
    }
    validate_ranking(r).map_err(|e| format!("{what}: {e}"))?;
    if r.contains(&0) {
        return Err(format!("{what} is not a complete ranking"));
    }
    Ok(())
}

/// m(m-1)/2, saturating (a hand-edited label count can be absurd).
fn pair_count(m: usize) -> usize {
    m.saturating_mul(m.saturating_sub(1)) / 2
}

fn same_len(len: usize, expected: usize, what: &str) -> Check {
    if len != expected {
        return Err(format!("{what} has {len} entries, expected {expected}"));
    }
    Ok(())
}

/// Every node reachable, children after their parent (no cycles), links and features in range.
fn tree<L>(t: &Tree<L>, n_features: usize, leaf: impl Fn(&L) -> Check) -> Check {
    if t.nodes.is_empty() {
        return Err("a tree has no nodes".into());
    }
    for (i, node) in t.nodes.iter().enumerate() {
        match *node {
            Node::Leaf { leaf } => {
                if leaf as usize >= t.leaves.len() {
                    return Err(format!("node {i} points to leaf {leaf} of {}", t.leaves.len()));
                }
            }
            Node::Split { feature, left, right, .. } | Node::Category { feature, left, right, .. } => {
                if feature as usize >= n_features {
                    return Err(format!("node {i} splits feature {feature} of {n_features}"));
                }
                for child in [left, right] {
                    if child as usize <= i || child as usize >= t.nodes.len() {
                        return Err(format!("node {i} has child {child} (must lie in {}..{})", i + 1, t.nodes.len()));
                    }
                }
            }
        }
    }
    t.leaves.iter().try_for_each(leaf)
}

/// Checks a decoded model; the message says what is inconsistent.
pub fn validate(model: &Model) -> Check {
    match model {
        Model::RandomForest(f) => {
            same_len(f.fill_values.len(), f.n_features, "fill_values")?;
            if f.trees.is_empty() {
                return Err("the forest has no trees".into());
            }
            f.trees.iter().try_for_each(|t| tree(t, f.n_features, |l| complete_ranking(&l.ranking, f.n_labels, "a leaf ranking")))
        }
        Model::LabelTree(t) => {
            same_len(t.fill_values.len(), t.n_features, "fill_values")?;
            tree(&t.tree, t.n_features, |l| complete_ranking(&l.ranking, t.n_labels, "a node ranking"))
        }
        Model::InstanceBased(m) => {
            let (d, n) = (m.n_features, m.sample_weight.len());
            for (len, what) in [
                (m.fill_values.len(), "fill_values"),
                (m.minimum.len(), "minimum"),
                (m.range.len(), "range"),
                (m.nominal.len(), "nominal"),
            ] {
                same_len(len, d, what)?;
            }
            same_len(m.x.len(), n * d, "the training features")?;
            same_len(m.y.len(), n * m.n_labels, "the training rankings")?;
            if n == 0 || m.k == 0 || m.k > n {
                return Err(format!("k = {} neighbours among {n} training rows", m.k));
            }
            if m.n_labels == 0 {
                return Err("no labels".into());
            }
            if m.range.iter().any(|&r| !(r > 0.0 && r.is_finite())) || m.minimum.iter().any(|v| !v.is_finite()) {
                return Err("attribute ranges must be positive and finite, minima finite".into());
            }
            if m.x.iter().any(|v| !v.is_finite()) || m.sample_weight.iter().any(|&w| !(w >= 0.0 && w.is_finite())) {
                return Err("training features must be finite and sample weights finite and non-negative".into());
            }
            m.y.chunks(m.n_labels).try_for_each(|r| validate_ranking(r).map_err(|e| format!("a training ranking: {e}")))
        }
        Model::Bagging(b) => bagging(b),
        Model::Labelwise(l) => {
            same_len(l.fill_values.len(), l.n_features, "fill_values")?;
            if l.trees.is_empty() {
                return Err("the model has no trees".into());
            }
            l.trees
                .iter()
                .try_for_each(|t| tree(t, l.n_features, |leaf| same_len(leaf.scores.len(), l.n_labels, "a leaf's scores")))
        }
        Model::Pairwise(p) => {
            same_len(p.fill_values.len(), p.n_features, "fill_values")?;
            same_len(p.pairs.len(), pair_count(p.n_labels), "the pairwise classifiers")?;
            for pair in &p.pairs {
                if pair.a >= pair.b || pair.b as usize >= p.n_labels {
                    return Err(format!("pair ({}, {}) among {} labels", pair.a, pair.b, p.n_labels));
                }
                pair.trees.iter().try_for_each(|t| {
                    tree(t, p.n_features, |&prob| {
                        if (0.0..=1.0).contains(&prob) {
                            Ok(())
                        } else {
                            Err(format!("leaf probability {prob}"))
                        }
                    })
                })?;
            }
            Ok(())
        }
        Model::Rpc(r) => {
            same_len(r.fill_values.len(), r.n_features, "fill_values")?;
            same_len(r.pairs.len(), pair_count(r.n_labels), "the pairwise models")?;
            for e in &r.encoding {
                let feature = match *e {
                    Encoding::Standardised { feature, .. } | Encoding::Indicator { feature, .. } => feature,
                };
                if feature as usize >= r.n_features {
                    return Err(format!("an input encodes feature {feature} of {}", r.n_features));
                }
            }
            for pair in &r.pairs {
                if pair.a >= pair.b || pair.b as usize >= r.n_labels {
                    return Err(format!("pair ({}, {}) among {} labels", pair.a, pair.b, r.n_labels));
                }
                same_len(pair.coef.len(), r.encoding.len(), "a pair's coefficients")?;
            }
            Ok(())
        }
    }
}

fn bagging(b: &BaggingModel) -> Check {
    if b.members.is_empty() {
        return Err("the ensemble has no members".into());
    }
    for member in &b.members {
        if member.n_labels() != b.n_labels || member.n_features() != b.n_features {
            return Err("a member has other labels or features than the ensemble".into());
        }
        validate(member)?;
    }
    Ok(())
}
