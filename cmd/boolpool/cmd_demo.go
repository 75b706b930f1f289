package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"boolpool/server/demo"
)

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "load" && args[0] != "build") {
		fmt.Fprintln(stderr, "usage: boolpool demo load            load the vendored demo project and accounts\n       boolpool demo build --from DIR --out DIR   rebuild the subset from DebQUEST")
		return fmt.Errorf("%w: want 'load' or 'build'", errUsage)
	}
	fs := newFlagSet("demo "+args[0], stderr, "")
	dbURL := dbFlag(fs)
	from := fs.String("from", "../shared/data/debquest", "build: DebQUEST directory")
	out := fs.String("out", "server/demo/data", "build: output directory")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if args[0] == "build" {
		docs, queries, err := demo.Build(ctx, *from, *out, demo.BuildOptions{})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d documents and %d queries to %s\n", docs, queries, *out)
		return nil
	}
	st, err := openStore(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := demo.Load(ctx, st, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	state := "already loaded"
	if sum.Imported {
		state = "imported"
	}
	fmt.Fprintf(stdout, "demo project %q %s: %d documents, %d queries, %d items to judge\n", demo.Project, state, sum.Documents, sum.Queries, sum.Items)
	fmt.Fprintln(stdout, "demo logins (username / password / role):")
	for _, a := range sum.Users {
		fmt.Fprintf(stdout, "  %-11s %-20s %s\n", a.Username, a.Password, a.Role)
	}
	return nil
}
