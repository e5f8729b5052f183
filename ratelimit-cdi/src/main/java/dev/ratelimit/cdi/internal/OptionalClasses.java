package dev.ratelimit.cdi.internal;

/** Whether an optional class is on the library's class path: the integrations it uses only when present. */
final class OptionalClasses {

    private OptionalClasses() {
    }

    /** True when {@code className} can be loaded by the library's class loader (it is not initialized). */
    static boolean present(String className) {
        try {
            Class.forName(className, false, OptionalClasses.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
