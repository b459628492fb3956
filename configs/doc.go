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
// Each package owns its section's struct (crawler.Config, repo.Config, ...);
// Config only composes them.
//
//	cfg, err := configs.Load(configs.Sources{File: path, Flags: cmd.Flags()})
//	if err != nil {
//		return err // names every bad key
//	}
//	db, err := repo.Open(dir, cfg.Repo, repo.Options{Logger: logger})
package configs
