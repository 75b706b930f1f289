package main

import (
	"context"
	"fmt"
	"io"

	"boolpool/server/store"
)

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate", stderr, "")
	dbURL := dbFlag(fs)
	status := fs.Bool("status", false, "only print the schema version and the latest one")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dbURL == "" {
		return fmt.Errorf("%w: no database: set DATABASE_URL or pass --database-url", errUsage)
	}
	st, err := store.Open(ctx, *dbURL, 2)
	if err != nil {
		return err
	}
	defer st.Close()
	latest, err := store.LatestVersion()
	if err != nil {
		return err
	}
	if *status {
		have, err := st.SchemaVersion(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "schema version %d, latest %d\n", have, latest)
		return printQueueSchema(ctx, st, stdout)
	}
	applied, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintf(stdout, "schema is current (version %d)\n", latest)
	} else {
		fmt.Fprintf(stdout, "applied migrations %v; schema at version %d\n", applied, latest)
	}
	return printQueueSchema(ctx, st, stdout)
}

// printQueueSchema prints the job queue's (River's) schema version, which
// migrate applies with boolpool's.
func printQueueSchema(ctx context.Context, st *store.Store, stdout io.Writer) error {
	have, latest, err := st.QueueSchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "job queue (River) schema version %d, latest %d\n", have, latest)
	return nil
}
