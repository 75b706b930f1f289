package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"boolpool/internal/cli"
	"boolpool/server/store"
)

// dbFlag registers --database-url (default $DATABASE_URL) on fs.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL; 'make db' prints one)")
}

// projectFlags are the --database-url and --project flags of a command
// that works on one project.
type projectFlags struct {
	db, project *string
}

// addProjectFlags adds --database-url and a required --project to fs.
func addProjectFlags(fs *flag.FlagSet) projectFlags {
	return projectFlags{db: dbFlag(fs), project: fs.String("project", "", "project `name` (required)")}
}

// parseAndOpen parses args into fs, checks that --project is given and
// opens the store and the project; the caller closes the store.
func (f projectFlags) parseAndOpen(ctx context.Context, fs *flag.FlagSet, args []string) (*store.Store, store.Project, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, store.Project{}, err
	}
	if *f.project == "" {
		return nil, store.Project{}, fmt.Errorf("%w: --project is required", errUsage)
	}
	return f.open(ctx)
}

// open opens the store and the project --project names; the caller
// closes the store.
func (f projectFlags) open(ctx context.Context) (*store.Store, store.Project, error) {
	return openProject(ctx, *f.db, *f.project)
}

// openStore connects (8 connections at most) and checks that the schema
// is current.
func openStore(ctx context.Context, url string) (*store.Store, error) {
	if url == "" {
		return nil, errors.New("no database: set DATABASE_URL (run 'make db' to start the managed one) or pass --database-url")
	}
	return openStoreConns(ctx, url, 8)
}

// openStoreConns connects with at most conns connections and refuses a
// schema that is behind: running old code paths against a half-migrated
// database is how judgments get lost.
func openStoreConns(ctx context.Context, url string, conns int32) (*store.Store, error) {
	st, err := store.Open(ctx, url, conns)
	if err != nil {
		return nil, err
	}
	if err := st.CheckSchema(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// parseFlags parses args, mapping flag errors to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error { return cli.ParseFlags(fs, args) }

// parseFlagsHelp parses args like parseFlags, but a help request (-h) is
// not an error: help is true and the caller returns nil (the flag package
// has printed the usage already).
func parseFlagsHelp(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, fmt.Errorf("%w: %v", errUsage, err)
	}
	return false, nil
}

// newFlagSet is the flag set of the sub-command name (cli.NewFlagSet).
func newFlagSet(name string, stderr io.Writer, usage string) *flag.FlagSet {
	return cli.NewFlagSet(name, stderr, usage)
}

// runFunc runs a (sub-)command: args are the arguments after its name.
type runFunc = cli.Func

// subcommand is the entry of subs that args[0] names, if any.
func subcommand(args []string, subs map[string]runFunc) (runFunc, bool) {
	if len(args) == 0 {
		return nil, false
	}
	run, ok := subs[args[0]]
	return run, ok
}
