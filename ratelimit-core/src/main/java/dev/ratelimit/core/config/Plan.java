package dev.ratelimit.core.config;

/**
 * One plan of {@code ratelimit.plans}: a group of callers with their own values for named limits.
 *
 * @param name  the plan, 1-64 characters from {@code [A-Za-z0-9._-]}
 * @param index its position in {@code ratelimit.plans}, from 1 (0 stands for callers in no plan)
 * @param role  {@code ratelimit.plans.<plan>.role} (default: the plan's name): the role that puts an
 *              authenticated caller in the plan
 */
public record Plan(String name, int index, String role) {
}
