package httpapi

import (
	"boolpool/api"
	"boolpool/server/auth"
)

func toAuthNewAccount(w api.NewUserRequest) auth.NewAccount { return auth.NewAccount(w) }
