//! `floor completions <shell>` and `floor man`: shell completions and manual pages generated
//! from the command line's clap definition ([`crate::cli::Cli`]), so they never drift from it.

use crate::cli::Cli;
use clap::CommandFactory;
use std::io::Write;
use std::path::Path;

/// Writes the completion script for `shell` to `out`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    clap_complete::generate(shell, &mut Cli::command(), "floor", out);
}

/// Writes the manual page floor(1) (every option and the list of subcommands) to `out`.
///
/// # Errors
/// Writing fails.
pub fn man(out: &mut dyn Write) -> std::io::Result<()> {
    clap_mangen::Man::new(Cli::command()).render(out)
}

/// Writes floor.1 and a page for every subcommand, however deep (`floor-tournament-create.1`),
/// into `dir`; returns the files written.
///
/// # Errors
/// The directory cannot be made or a page cannot be written.
pub fn man_pages(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut command = Cli::command();
    command.build();
    let mut written = Vec::new();
    write_pages(&command, "floor", dir, &mut written)?;
    Ok(written)
}

fn write_pages(command: &clap::Command, name: &str, dir: &Path, written: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    let path = dir.join(format!("{name}.1"));
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).title(name).source(concat!("floor ", env!("CARGO_PKG_VERSION"))).render(&mut page)?;
    std::fs::write(&path, page)?;
    written.push(path);
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_are_generated_for_every_shell_and_name_the_subcommands() {
        for shell in [clap_complete::Shell::Bash, clap_complete::Shell::Zsh, clap_complete::Shell::Fish] {
            let mut out = Vec::new();
            completions(shell, &mut out);
            let text = String::from_utf8(out).expect("utf-8");
            for word in ["tournament", "table-check", "completions", "data"] {
                assert!(text.contains(word), "{shell:?} completions lack {word}");
            }
        }
    }

    #[test]
    fn the_manual_pages_are_generated_for_floor_and_each_subcommand() {
        let mut out = Vec::new();
        man(&mut out).expect("renders");
        let page = String::from_utf8(out).expect("utf-8");
        assert!(page.starts_with(".ie") || page.contains(".TH floor 1"), "{}", &page[..200.min(page.len())]);
        assert!(page.contains("table\\-check"), "the page lists the subcommands");
        let dir = std::env::temp_dir().join(format!("floor-man-{}", std::process::id()));
        let written = man_pages(&dir).expect("written");
        assert!(written.iter().any(|p| p.ends_with("floor-tournament-create.1")), "{written:?}");
        let create = std::fs::read_to_string(dir.join("floor-tournament-create.1")).expect("read");
        assert!(create.contains(".TH floor-tournament-create 1"), "{}", &create[..200.min(create.len())]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
