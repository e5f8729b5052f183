package dev.ratelimit.openapi.processor;

import dev.ratelimit.openapi.internal.index.IndexFile;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.internal.index.IndexedApplication;
import dev.ratelimit.openapi.internal.index.IndexedMethod;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.List;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/** Index I/O: the index a previous compilation wrote ({@value IndexFormat#LOCATION}), and this one's. */
final class IndexFiles {

    private final ProcessingEnvironment processingEnv;
    private final Messager messager;

    IndexFiles(ProcessingEnvironment processingEnv) {
        this.processingEnv = processingEnv;
        this.messager = processingEnv.getMessager();
    }

    /** The index of the previous compilation in the class output, or null (none, or not one this version reads). */
    IndexFile previous() {
        return read(existingIndex());
    }

    private FileObject existingIndex() {
        try {
            return processingEnv.getFiler().getResource(StandardLocation.CLASS_OUTPUT, "", IndexFormat.LOCATION);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    private static IndexFile read(FileObject file) {
        if (file == null) {
            return null;
        }
        try (Reader in = file.openReader(true)) {
            return IndexFormat.read(in, file.toUri().toString());
        } catch (IOException e) {
            return null; // none yet, or not one this version reads: rewritten whole
        }
    }

    void write(List<IndexedApplication> applications, List<IndexedMethod> methods) {
        Filer filer = processingEnv.getFiler();
        try {
            FileObject file = filer.createResource(StandardLocation.CLASS_OUTPUT, "", IndexFormat.LOCATION);
            try (Writer out = file.openWriter()) {
                IndexFormat.write(out, applications, methods);
            }
        } catch (IOException e) {
            messager.printMessage(Diagnostic.Kind.MANDATORY_WARNING, "ratelimit-openapi: could not write "
                    + IndexFormat.LOCATION + ": " + e.getMessage());
            return;
        }
        if (Boolean.parseBoolean(processingEnv.getOptions().get(RateLimitIndexProcessor.VERBOSE_OPTION))) {
            long limited = methods.stream().filter(m -> !m.methodLimits().isEmpty() || !m.classLimits().isEmpty()).count();
            messager.printMessage(Diagnostic.Kind.NOTE, "ratelimit-openapi: indexed " + methods.size()
                    + " resource methods (" + limited + " with their own @RateLimit) and " + applications.size()
                    + " Application subclasses in " + IndexFormat.LOCATION);
        }
    }

}
