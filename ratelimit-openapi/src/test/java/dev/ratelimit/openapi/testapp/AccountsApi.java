package dev.ratelimit.openapi.testapp;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Jakarta REST annotations on an interface; the implementation carries the limits. */
@Path("/accounts")
public interface AccountsApi {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    String all();

    @PUT
    @Path("{name}")
    void rename(@PathParam("name") String name, String newName);
}
