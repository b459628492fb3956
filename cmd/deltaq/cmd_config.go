package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
)

func (a *app) newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show or check the configuration",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "print",
		Short: "Print the effective configuration (defaults, file, environment, flags merged)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := configs.Effective(a.sources(cmd))
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(out)
			return err
		},
	}, &cobra.Command{
		Use:   "check [--config FILE]",
		Short: "Check the configuration (defaults, file, environment merged): print OK or every problem",
		Long: `Check loads the configuration as every command does (the defaults, then
--config FILE, then the DELTAQ_* environment) and validates it. It prints
OK, or fails naming each problem: where it was set (FILE:LINE or the
variable), the key, the value and the limit. Run it after editing a file,
before a long crawl or a server reads it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := configs.Load(a.sources(cmd)); err != nil {
				return err
			}
			what := "the defaults (no --config)"
			if a.configFile != "" {
				what = a.configFile + " over the defaults"
			}
			_, err := fmt.Fprintf(a.stdout, "configuration OK: %s, with the DELTAQ_* environment\n", what)
			return err
		},
	}, &cobra.Command{
		Use:   "defaults",
		Short: "Print configs/default.yaml, every setting with its comment",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := a.stdout.Write(configs.DefaultYAML)
			return err
		},
	})
	return cmd
}
