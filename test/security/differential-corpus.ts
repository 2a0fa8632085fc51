/**
 * Lines the differential fuzzer found getting out (seeds 292026 and 7, 2026-11-28), one or two per
 * class, kept so each class stays covered whatever the seed draws. `{canary}` and `{project}` stand for
 * the fuzz world's absolute paths. Every line here is run for both modes: the engine must ask, or the
 * line must touch nothing when it runs.
 */

/** Each entry: the line, and the class it stands for. */
export const ESCAPE_CORPUS: ReadonlyArray<[string, string]> = [
  ["printf -v 'x[$(cat ~/.ssh/id_rsa >&2)]' %s 1", "printf -v runs a subscript's substitution"],
  ["printf -v \"x[\\$(sh tools/run.sh >&2)]\" '%s' 1", "printf -v runs a subscript's substitution"],
  ["jq -n '$ ENV'", "jq reads the environment ($ ENV with a space)"],
  ["jq -n '$\tENV'", "jq reads the environment ($<tab>ENV)"],
  ["jq -n '\"\\($ ENV)\"'", "jq reads the environment (interpolated)"],
  ["md5sum --text link-dir/../canary/secret.txt", "`..` after a linked directory reads outside"],
  ["nl node_modules/pkg/../../home/.netrc", "`..` after a linked directory reads outside"],
  ["du node_modules/pkg/..", "`..` after a linked directory lists outside"],
  ["find node_modules/pkg/.. notes.txt", "`..` after a linked directory lists outside"],
  ["pwd &> node_modules/pkg/../../home/.netrc", "`..` after a linked directory writes outside"],
  ["rm link-in node_modules/pkg/../secret.txt", "`..` after a linked directory removes outside"],
  ["cat lists/files0 | sort --files0-from=lists/files0", "--files0-from reads the files listed"],
  ["printf 'link-dir/../canary\\0' | du --files0-from -", "--files0-from=- lists the directories listed"],
  ["cat lists/files0 | wc --files0-from -", "--files0-from=- reads the files listed"],
  ["sort <<-'EOF' > out.txt\n\tline one\n\tEOF", "a redirection after a heredoc is not judged"],
  ['sed -n p <<"EOF" > out.txt\nline one\nEOF', "a redirection after a heredoc is not judged"],
  ["sort <<-'EOF' >> {canary}/victim.txt\n\tline one\n\tEOF", "a redirection after a heredoc is not judged"],
  ["sed -n p <<\\EOF > out.txt > .git/config\nline one\nEOF", "a redirection after a heredoc is not judged"],
  ["jq -R . <<EOF\nline one\n`touch {canary}/pwned`\nEOF", "backticks in an unquoted heredoc body run"],
  [
    "sed -n p <<-EOF | cat\n\tline one\n\t`rm -f {canary}/victim.txt`\nEOF",
    "backticks in a <<- heredoc body run",
  ],
  ["cp notes.txt .csh && mv -b -S rc README.md .csh", "a backup suffix completes a protected name"],
  ["cp notes.txt .ide && cp -b -S a README.md .ide", "a backup suffix completes a protected name"],
  ["cp -rT templates .", "copying a tree creates protected names"],
  ["cp -r templates/. .", "copying a tree creates protected names"],
  ["mv templates copy", "moving a tree moves protected names"],
  ["cp -P src/parent up && touch up/canary/secret.txt", "a copied relative link, then a write through it"],
  ["cp -R src/parent up && cat up/canary/secret.txt", "a copied relative link, then a read through it"],
  ["mv src/parent up; echo pwned > up/canary/secret.txt", "a moved relative link, then a write through it"],
  ["cp -d src/parent x && ls x/", "a copied relative link, then a listing through it"],
  ["cp tools/run.sh ls && printf -v PATH %s . && ls", "printf -v PATH runs a planted program"],
  ["rm -rf ../project", "removing the project itself"],
  ["rm -rf {project}", "removing the project itself"],
  ["rm -rf src/parent/", "removing the project through a linked directory"],
  [
    "cp -abT -Srecurse src/parent link-dir/../home/.ssh/id_rsa",
    "`..` after a linked directory replaces a key",
  ],
];
