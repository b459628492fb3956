package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/repo"
)

// loadEval loads cmd's configuration and checks that --out names the
// evaluation's output directory, and that the files and directories it
// reads are there: inputs (nil for none) names them by flag, as loaded.
func (a *app) loadEval(cmd *cobra.Command, out string, inputs func(*configs.Config) map[string][]string) (*configs.Config, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, errors.New("--out: an output directory is required")
	}
	if inputs != nil {
		if err := checkInputs(cmd, inputs(cfg)); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// checkInputs refuses an input path that is not there, or given twice,
// naming its flag and the configuration key the flag sets: the value may
// come from either, and a package that fails to open it deep in a run can
// name only the path. Empty paths are left to the command, which knows
// whether the input is required.
func checkInputs(cmd *cobra.Command, inputs map[string][]string) error {
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		for _, path := range inputs[name] {
			if path == "" {
				continue
			}
			if _, err := os.Stat(path); err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return fmt.Errorf("%s = %s: %w", flagAndKey(cmd, name), path, err)
			}
		}
		if err := distinctPaths(flagAndKey(cmd, name), inputs[name]); err != nil {
			return err
		}
	}
	return nil
}

// distinctPaths refuses a path given twice to the repeatable flag, however
// named (realPath): an archive given twice would be evaluated twice, its
// rows doubled and its plots written over. The paths exist.
func distinctPaths(flag string, paths []string) error {
	seen := make(map[string]string, len(paths))
	for _, p := range paths {
		if p == "" {
			continue
		}
		real, err := realPath(p)
		if err != nil {
			return fmt.Errorf("%s = %s: %w", flag, p, err)
		}
		if first, ok := seen[real]; ok {
			also := ""
			if first != p {
				also = " (also as " + first + ")"
			}
			return fmt.Errorf("%s = %s: given twice%s; give each once", flag, p, also)
		}
		seen[real] = p
	}
	return nil
}

// flagAndKey names cmd's flag as --name, with the configuration key it
// sets if any: "--log (eval.ads.log)".
func flagAndKey(cmd *cobra.Command, name string) string {
	if f := cmd.Flags().Lookup(name); f != nil {
		if key, ok := flagKey(f); ok {
			return "--" + name + " (" + key + ")"
		}
	}
	return "--" + name
}

// loadRepo loads cmd's configuration, runs check (nil for none) on it
// before the data directory is touched, and opens the repository under
// dataDir with the configured logger, creating it if need be. The caller
// closes the repository.
func (a *app) loadRepo(cmd *cobra.Command, dataDir string, check func(*configs.Config) error) (*configs.Config, *repo.DB, *slog.Logger, error) {
	return a.loadRepoWith(cmd, dataDir, check, openRepo)
}

// loadCrawledRepo is loadRepo for the commands that read a repository,
// which must be there (openCrawledRepo).
func (a *app) loadCrawledRepo(cmd *cobra.Command, dataDir string, check func(*configs.Config) error) (*configs.Config, *repo.DB, *slog.Logger, error) {
	return a.loadRepoWith(cmd, dataDir, check, openCrawledRepo)
}

func (a *app) loadRepoWith(cmd *cobra.Command, dataDir string, check func(*configs.Config) error, open repoOpener) (*configs.Config, *repo.DB, *slog.Logger, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	if check != nil {
		if err := check(cfg); err != nil {
			return nil, nil, nil, err
		}
	}
	logger := a.logger(cfg)
	db, err := open(dataDir, cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, db, logger, nil
}
