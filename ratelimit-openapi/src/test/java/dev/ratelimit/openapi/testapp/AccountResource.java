package dev.ratelimit.openapi.testapp;

import dev.ratelimit.RateLimit;

/** A class limit covering every method, declared on the implementation of an annotated interface. */
@RateLimit(permitLimit = 30, windowSeconds = 60, name = "accounts")
public class AccountResource implements AccountsApi {

    @Override
    public String all() {
        return "[]";
    }

    @Override
    public void rename(String name, String newName) {
    }
}
