package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
)

// loadEval loads cmd's configuration and checks that --out names the
// evaluation's output directory.
func (a *app) loadEval(cmd *cobra.Command, out string) (*configs.Config, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, errors.New("--out: an output directory is required")
	}
	return cfg, nil
}
