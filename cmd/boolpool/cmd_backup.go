package main

import (
	"context"
	"fmt"
	"io"

	"boolpool/server/backup"
)

func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", stderr, "")
	dbURL := dbFlag(fs)
	out := fs.String("out", "", "dump file to write (pg_dump custom format)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || *dbURL == "" {
		return fmt.Errorf("%w: --out FILE and a database (DATABASE_URL) are required", errUsage)
	}
	if err := backup.Dump(ctx, *dbURL, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup written to %s\n", *out)
	return nil
}

func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("restore", stderr, "")
	dbURL := dbFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *dbURL == "" {
		return fmt.Errorf("%w: usage: boolpool restore [--database-url URL] FILE", errUsage)
	}
	if err := backup.Restore(ctx, *dbURL, fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s\n", fs.Arg(0))
	return nil
}
