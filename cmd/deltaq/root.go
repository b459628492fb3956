package main

import (
	"fmt"
	"io"
	"log/slog"
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
	bind(root.PersistentFlags(), map[string]string{"log-level": "log.level"})
	root.AddCommand(
		a.newDemoCmd(),
		a.newCrawlCmd(),
		a.newClusterCmd(),
		a.newServeCmd(),
		a.newRunCmd(),
		a.newIndexCmd(),
		a.newPageCmd(),
		a.newHostsCmd(),
		a.newQueueCmd(),
		a.newRmCmd(),
		a.newBackupCmd(),
		a.newExportCmd(),
		a.newAdsCmd(),
		a.newWebCmd(),
		a.newEvalCmd(),
		a.newRelationCmd(),
		a.newFeedsCmd(),
		a.newWatchCmd(),
		a.newAlertCmd(),
		a.newNotifyCmd(),
		a.newConfigCmd(),
		a.newVersionCmd(),
	)
	// A broken default.yaml fails every command's load with the reason;
	// help then shows the flags' zero values.
	if defaults, err := configs.Defaults(); err == nil {
		showDefaults(root, defaults)
	}
	// cobra adds its help and completion commands as it executes; added
	// now, they get the checks below like every other command.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	refuseUnknownHelpTopics(root)
	refuseUnknownSubcommands(root)
	usageInArgErrors(root)
	return root
}

// refuseUnknownHelpTopics makes `deltaq help WORD...` fail when the words
// name no command: cobra's help printed "Unknown help topic" and the root's
// usage, or the help of the command the first words named, and exited 0.
func refuseUnknownHelpTopics(root *cobra.Command) {
	for _, help := range root.Commands() {
		if help.Name() != "help" {
			continue
		}
		help.Run = nil
		help.RunE = func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil { // the first word names no command
				cmd, rest = root, args
			}
			if len(rest) > 0 {
				return fmt.Errorf("help %s: %w", strings.Join(args, " "), unknownSubcommand(cmd, rest))
			}
			cmd.InitDefaultHelpFlag() // for its help to list -h, as cobra's help does
			return cmd.Help()
		}
	}
}

// usageInArgErrors makes a command given too few or too many arguments
// say which it takes: cobra's "accepts 1 arg(s), received 0" does not name
// the OUT, URL or NODE that is missing; the usage line does.
func usageInArgErrors(root *cobra.Command) {
	eachCommand(root, func(cmd *cobra.Command) {
		check := cmd.Args
		if check == nil {
			return
		}
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return fmt.Errorf("%w; usage: %s", err, c.UseLine())
			}
			return nil
		}
	})
}

// refuseUnknownSubcommands makes every group of commands (deltaq index,
// feeds, watch, ...) fail on a word that names none of its commands, as
// cobra does only for the root: otherwise `deltaq index rebuld` would
// print the group's help and exit 0, and a script would take it for done.
// Alone, a group still prints its help; given flags and no word, it
// refuses the flags it lacks.
func refuseUnknownSubcommands(root *cobra.Command) {
	eachCommand(root, func(cmd *cobra.Command) {
		if !cmd.HasParent() || !cmd.HasSubCommands() || cmd.Runnable() {
			return
		}
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, which it sets for the root alone
		cmd.DisableFlagsInUseLine = true   // its usage says "deltaq index", not "deltaq index [flags]"
		cmd.Args = nil                     // cobra's completion has NoArgs, which would name the word without the commands
		cmd.RunE = unknownSubcommand
		// A word that names no command, followed by flags of the command
		// meant (deltaq index rebuld --data d), fails the group's flag
		// parsing first: name the word, not a flag the group lacks.
		group := cmd
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			if words := c.Flags().Args(); c == group && len(words) > 0 {
				return unknownSubcommand(c, words)
			}
			return err
		})
	})
}

// unknownSubcommand is a group's RunE: its help when given no word, else
// an error naming the word, the commands it is close to and the commands
// there are.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%s (%s has no commands)", msg, cmd.CommandPath())
	}
	return fmt.Errorf("%s (commands: %s; %s --help describes them)", msg, strings.Join(names, ", "), cmd.CommandPath())
}

// load builds the effective configuration for cmd: defaults, --config file,
// DELTAQ_* environment, then the flags of cmd bound to keys.
func (a *app) load(cmd *cobra.Command) (*configs.Config, error) {
	cfg, err := configs.Load(a.sources(cmd))
	if err != nil {
		return nil, err
	}
	// Flags only a cluster node reads: given without a cluster, the
	// command would ignore them and run alone.
	for _, name := range []string{"node", "wait-nodes"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && cfg.Cluster.URL == "" {
			return nil, fmt.Errorf("--%s %s: only a cluster node reads it; give --cluster (cluster.url) too", name, f.Value)
		}
	}
	return cfg, nil
}

// sources are cmd's configuration sources.
func (a *app) sources(cmd *cobra.Command) configs.Sources {
	return configs.Sources{File: a.configFile, Flags: cmd.Flags(), FlagKeys: boundKeys(cmd.Flags())}
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
