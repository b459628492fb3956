package main

import (
	"io"
	"log/slog"
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
)

// app carries what every command needs: where to write and how to load the
// configuration. It replaces package-level cobra and viper state.
type app struct {
	stdout, stderr io.Writer
	configFile     string
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "deltaq",
		Short:         "Crawl, index and search the web the way its users search",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "YAML file overriding configs/default.yaml")
	root.PersistentFlags().String("log-level", "", "log level: debug, info, warn, error (log.level)")
	root.AddCommand(
		a.newDemoCmd(),
		a.newCrawlCmd(),
		a.newServeCmd(),
		a.newRunCmd(),
		a.newIndexCmd(),
		a.newPageCmd(),
		a.newAdsCmd(),
		a.newWebCmd(),
		a.newEvalCmd(),
		a.newFeedsCmd(),
		a.newConfigCmd(),
		a.newVersionCmd(),
	)
	return root
}

// load builds the effective configuration for cmd: defaults, --config file,
// DELTAQ_* environment, then the flags of cmd that map to keys.
func (a *app) load(cmd *cobra.Command, flagKeys map[string]string) (*configs.Config, error) {
	return configs.Load(a.sources(cmd, flagKeys))
}

// sources are cmd's configuration sources: flagKeys plus the root's flags.
func (a *app) sources(cmd *cobra.Command, flagKeys map[string]string) configs.Sources {
	keys := map[string]string{"log-level": "log.level"}
	maps.Copy(keys, flagKeys)
	return configs.Sources{File: a.configFile, Flags: cmd.Flags(), FlagKeys: keys}
}

// logger builds the process logger from the log section.
func (a *app) logger(cfg *configs.Config) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(cfg.Log.Level))); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(a.stderr, opts))
	}
	return slog.New(slog.NewTextHandler(a.stderr, opts))
}
