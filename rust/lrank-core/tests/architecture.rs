//! The core's architecture, checked on its sources: the top-level modules form no cycle (each
//! uses only modules below it), no learner imports another, and no source file is much over 600
//! lines. Run alone with `cargo test -p lrank-core --test architecture -- --nocapture`, which
//! also prints the modules in dependency order.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 620;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file that is not test code or comments: everything before its first
/// `#[cfg(test)]`, without comment lines.
fn production_code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The `crate::a::b` paths a piece of code names, as segment lists.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        if i > 0 && (code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') || code[..i].ends_with("::")) {
            continue; // e.g. lrank_crate:: or other::crate::
        }
        let rest = &code[i + "crate::".len()..];
        let mut segments: Vec<String> = Vec::new();
        for piece in rest.split("::") {
            let ident: String = piece.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let ends_here = ident.len() < piece.len();
            if !ident.is_empty() {
                segments.push(ident);
            }
            if ends_here || segments.is_empty() {
                break;
            }
        }
        if !segments.is_empty() {
            out.push(segments);
        }
    }
    out
}

struct Sources {
    root: PathBuf,
    files: Vec<PathBuf>,
}

impl Sources {
    fn core() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        files.sort();
        Sources { root, files }
    }

    /// The file's path below `src`, as segments without the extension (`mod.rs` drops out).
    fn module_of(&self, file: &Path) -> Vec<String> {
        let rel = file.strip_prefix(&self.root).unwrap().with_extension("");
        let mut segments: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if segments.last().is_some_and(|s| s == "mod") {
            segments.pop();
        }
        segments
    }
}

/// Top-level module -> the top-level modules it uses.
fn top_level_graph(src: &Sources) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &src.files {
        let module = src.module_of(file);
        let Some(top) = module.first().cloned() else { continue };
        if top == "lib" {
            continue;
        }
        let uses = graph.entry(top.clone()).or_default();
        for path in crate_paths(&production_code(file)) {
            let is_module = src.root.join(&path[0]).is_dir() || src.root.join(format!("{}.rs", path[0])).is_file();
            if is_module && path[0] != top {
                uses.insert(path[0].clone());
            }
        }
    }
    graph
}

/// A topological order (every module after the ones it uses), or the modules left in a cycle.
fn order(graph: &BTreeMap<String, BTreeSet<String>>) -> Result<Vec<String>, BTreeSet<String>> {
    let mut placed: Vec<String> = Vec::new();
    let mut left: BTreeSet<String> = graph.keys().cloned().collect();
    while !left.is_empty() {
        let ready: Vec<String> =
            left.iter().filter(|m| graph[*m].iter().all(|u| placed.contains(u) || !graph.contains_key(u))).cloned().collect();
        if ready.is_empty() {
            return Err(left);
        }
        for m in ready {
            left.remove(&m);
            placed.push(m);
        }
    }
    Ok(placed)
}

#[test]
fn the_core_modules_form_no_cycle() {
    let graph = top_level_graph(&Sources::core());
    for (module, uses) in &graph {
        println!("{module} -> {}", uses.iter().cloned().collect::<Vec<_>>().join(", "));
    }
    match order(&graph) {
        Ok(order) => println!("dependency order: {}", order.join(" < ")),
        Err(cycle) => panic!("these core modules import each other in a cycle: {cycle:?}"),
    }
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), ["b".to_string()].into());
    graph.insert("b".into(), ["c".to_string()].into());
    graph.insert("c".into(), ["a".to_string()].into());
    graph.insert("d".into(), ["a".to_string()].into());
    assert_eq!(order(&graph).unwrap_err().len(), 4);
    graph.get_mut("c").unwrap().clear();
    assert_eq!(order(&graph).unwrap(), vec!["c", "b", "a", "d"]);
    assert_eq!(
        crate_paths("use crate::tree::Tree; x::crate::no; my_crate::no"),
        vec![vec!["tree".to_string(), "Tree".to_string()]]
    );
}

#[test]
fn no_learner_imports_another() {
    let src = Sources::core();
    let mut offenders = Vec::new();
    for file in &src.files {
        let module = src.module_of(file);
        if module.first().is_none_or(|m| m != "learners") || module.len() < 2 {
            continue;
        }
        for path in crate_paths(&production_code(file)) {
            if path.len() >= 2 && path[0] == "learners" && path[1] != module[1] {
                offenders.push(format!("{}: crate::{}", file.display(), path.join("::")));
            }
        }
    }
    assert!(offenders.is_empty(), "learners must not import each other:\n{}", offenders.join("\n"));
}

#[test]
fn no_source_file_is_much_over_600_lines() {
    let bindings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lrank-python/src");
    let mut files = Sources::core().files;
    if bindings.is_dir() {
        rust_files(&bindings, &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(f, n)| format!("{}: {n} lines", f.display()))
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}
