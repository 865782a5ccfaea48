//! Names in messages and paths: GNU's quoting of file names, and lexical path pieces.

/// Quotes `name` the way GNU tools quote file names in messages (C.UTF-8 locale, style
/// "shell-escape-always"): `'a b'`, `"it's"`, `'a'$'\n''b'`.
pub fn quote(name: &str) -> String {
    let has_control = name.chars().any(char::is_control);
    let double_ok = !name.contains(['$', '`', '\\', '"']);
    if !has_control && name.contains('\'') && double_ok {
        return format!("\"{name}\"");
    }
    let mut out = String::with_capacity(name.len() + 2);
    out.push('\'');
    let mut open = true;
    for c in name.chars() {
        if c.is_control() {
            if open {
                out.push('\'');
                open = false;
            }
            out.push_str(&control_escape(c));
            continue;
        }
        if !open {
            out.push('\'');
            open = true;
        }
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    if open {
        out.push('\'');
    }
    out
}

/// `$'\n'` for the usual escapes, `$'\001'` (octal) for other control characters.
fn control_escape(c: char) -> String {
    let named = match c {
        '\u{7}' => "a",
        '\u{8}' => "b",
        '\t' => "t",
        '\n' => "n",
        '\u{b}' => "v",
        '\u{c}' => "f",
        '\r' => "r",
        _ => "",
    };
    if named.is_empty() {
        let mut buf = [0u8; 4];
        let octal: String = c
            .encode_utf8(&mut buf)
            .bytes()
            .map(|b| format!("\\{b:03o}"))
            .collect();
        format!("$'{octal}'")
    } else {
        format!("$'\\{named}'")
    }
}

/// Quotes `name` only when a shell would need it (GNU's `quote_if_needed`, used after `tool: `).
pub fn quote_if_needed(name: &str) -> String {
    let safe = |c: char| c.is_alphanumeric() || "%+,-./:=@^_".contains(c) || !c.is_ascii();
    if !name.is_empty() && name.chars().all(safe) {
        name.to_string()
    } else {
        quote(name)
    }
}

/// `path` without trailing slashes (but `/` stays `/`).
pub fn strip_trailing_slashes(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() && path.starts_with('/') {
        "/"
    } else {
        trimmed
    }
}

/// The last component of `path`, as `basename` prints it.
pub fn basename(path: &str) -> &str {
    let trimmed = strip_trailing_slashes(path);
    if trimmed == "/" {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// Everything before the last component of `path`, as `dirname` prints it.
pub fn dirname(path: &str) -> &str {
    let trimmed = strip_trailing_slashes(path);
    match trimmed.rfind('/') {
        None => ".",
        Some(at) => {
            let head = trimmed[..at].trim_end_matches('/');
            if head.is_empty() {
                "/"
            } else {
                head
            }
        }
    }
}

/// `dir/name`, without doubling a slash `dir` already ends with.
pub fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The relative path from directory `from` to `to` (both absolute and normalised).
pub fn relative(from: &str, to: &str) -> String {
    let parts = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (from, to) = (parts(from), parts(to));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".to_string(); from.len() - common];
    out.extend(to[common..].iter().cloned());
    if out.is_empty() {
        ".".to_string()
    } else {
        out.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_matches_gnu() {
        let cases = [
            ("a b", "'a b'"),
            ("it's", "\"it's\""),
            ("a'\\b", "'a'\\''\\b'"),
            ("a'$b", "'a'\\''$b'"),
            ("a\tb", "'a'$'\\t''b'"),
            ("\u{1}", "''$'\\001'"),
            ("é", "'é'"),
            ("a\"b", "'a\"b'"),
            ("", "''"),
        ];
        for (name, want) in cases {
            assert_eq!(quote(name), want, "{name:?}");
        }
        assert_eq!(quote_if_needed("dir/f.txt"), "dir/f.txt");
        assert_eq!(quote_if_needed("a b"), "'a b'");
    }

    #[test]
    fn path_pieces() {
        let cases = [
            ("a/b/", "b", "a"),
            ("/", "/", "/"),
            ("a", "a", "."),
            ("/a", "a", "/"),
            ("//a//b//", "b", "//a"),
        ];
        for (path, base, dir) in cases {
            assert_eq!((basename(path), dirname(path)), (base, dir), "{path}");
        }
        assert_eq!(join("a/", "b"), "a/b");
        assert_eq!(join(".", "b"), "./b");
        assert_eq!(relative("/a/b", "/a/c/d"), "../c/d");
        assert_eq!(relative("/a", "/a"), ".");
        assert_eq!(relative("/", "/usr"), "usr");
        assert_eq!(relative("/tmp/g/d", "/tmp"), "../..");
    }
}
