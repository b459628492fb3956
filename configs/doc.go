// Package configs loads deltaq's configuration.
//
// configs/default.yaml, embedded in the binary, is the only place a default
// is written. Load lays it down first, then merges an optional file, then
// DELTAQ_* environment variables, then command-line flags, and decodes the
// result with viper's UnmarshalExact into Config, which mirrors the YAML: a
// misspelt key is an error, not a silently ignored setting. Validate gathers
// every problem at once, each naming the key path, the value and the limit,
// e.g. "crawler.politeness.min_delay = -1s: must be >= 0".
//
// Before viper merges them, the file, the environment and the flags are
// checked against the shape of Config (check.go): a number where a section
// belongs, a word where a duration belongs or an unknown key is reported
// with where it was written (FILE:LINE, DELTAQ_* variable or --flag), and
// every validation message is prefixed the same way. Such a value is left
// out and its key keeps its default, so that the rest is decoded and
// validated: one load reports every problem, the values that do not fit
// and then what Validate finds in those that do (but nothing about the
// defaults the refused values left in place). A list set through
// the environment or a flag is comma-separated (a,b), each item as written:
// [/]calendar/ is one regular expression, not a YAML list. A list of
// sections (crawler.politeness.overrides) is a YAML flow list
// ([{host: a.test, per_host: 2}]). A repeatable flag (--exclude) takes one
// item each time it is given, so an item may hold a comma.
//
// Each package owns its section's struct (crawler.Config, repo.Config, ...);
// Config only composes them.
//
//	cfg, err := configs.Load(configs.Sources{File: path, Flags: cmd.Flags()})
//	if err != nil {
//		return err // names every bad key
//	}
//	db, err := repo.Open(dir, cfg.Repo, repo.Options{Logger: logger})
package configs
