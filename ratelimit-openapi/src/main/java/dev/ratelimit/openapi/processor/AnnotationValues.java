package dev.ratelimit.openapi.processor;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/** Annotation members read by name from the source: the classes being compiled cannot be reflected on. */
final class AnnotationValues {

    private final Elements elements;

    AnnotationValues(Elements elements) {
        this.elements = elements;
    }

    Object value(AnnotationMirror annotation, String member) {
        for (var e : elements.getElementValuesWithDefaults(annotation).entrySet()) {
            if (e.getKey().getSimpleName().contentEquals(member)) {
                return e.getValue().getValue();
            }
        }
        return null;
    }

    String stringValue(Element element, String annotationType) {
        for (AnnotationMirror a : element.getAnnotationMirrors()) {
            if (((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().contentEquals(annotationType)) {
                Object value = value(a, "value");
                return value == null ? null : value.toString();
            }
        }
        return null;
    }
}
