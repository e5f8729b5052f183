package dev.ratelimit.openapi.internal.index;

import java.util.List;

/**
 * The content of one index resource: what one compilation (one jar or classes folder) declares.
 *
 * @param source       where it was read from, for messages
 * @param applications the {@code Application} subclasses it compiled
 * @param methods      the resource methods it compiled
 */
public record IndexFile(String source, List<IndexedApplication> applications, List<IndexedMethod> methods) {

    public IndexFile {
        applications = List.copyOf(applications);
        methods = List.copyOf(methods);
    }
}
