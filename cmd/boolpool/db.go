package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"boolpool/server/store"
)

// dbFlag registers --database-url (default $DATABASE_URL) on fs.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL; 'make db' prints one)")
}

// openStore connects and checks that the schema is current.
func openStore(ctx context.Context, url string) (*store.Store, error) {
	if url == "" {
		return nil, errors.New("no database: set DATABASE_URL (run 'make db' to start the managed one) or pass --database-url")
	}
	st, err := store.Open(ctx, url, 8)
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
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return fmt.Errorf("%w: help requested", errUsage)
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}
