package dev.ratelimit.quarkus.deployment.devui;

import dev.ratelimit.quarkus.deployment.LimitsBuildItem;
import dev.ratelimit.quarkus.deployment.ValidatedLimitsBuildItem;
import dev.ratelimit.quarkus.runtime.ResourceMethodLimits;
import io.quarkus.deployment.IsDevelopment;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.Consume;
import io.quarkus.devui.spi.page.CardPageBuildItem;
import io.quarkus.devui.spi.page.Page;
import java.util.List;
import java.util.Map;

/**
 * The extension's Dev UI, in dev mode only: a card whose one page lists every limit of every resource method, as
 * declared and resolved at build time ({@link LimitRows}; configuration can change them at run time). It runs once the
 * build's checks passed, when Quarkus REST has deployed every resource method.
 *
 * <p>Not API: the extension's build steps.
 */
class RateLimitDevUiProcessor {

    /** The key of the rows in the card's build-time data. */
    static final String LIMITS = "limits";

    @BuildStep(onlyIf = IsDevelopment.class)
    @Consume(ValidatedLimitsBuildItem.class)
    CardPageBuildItem limitsCard(LimitsBuildItem limits) {
        return card(limits.resourceMethods());
    }

    /** The card for {@code methods}: one table page, titled "Limits", labelled with the number of rows. */
    static CardPageBuildItem card(List<ResourceMethodLimits> methods) {
        List<Map<String, Object>> rows = LimitRows.of(methods);
        CardPageBuildItem card = new CardPageBuildItem();
        card.addBuildTimeData(LIMITS, rows);
        card.addPage(Page.tableDataPageBuilder("Limits")
                .icon("font-awesome-solid:gauge-high")
                .staticLabel(String.valueOf(rows.size()))
                .buildTimeDataKey(LIMITS)
                .showColumn("method").showColumn("name").showColumn("permitLimit").showColumn("windowSeconds")
                .showColumn("algorithm").showColumn("cost").showColumn("scope").showColumn("declaredOn"));
        return card;
    }
}
