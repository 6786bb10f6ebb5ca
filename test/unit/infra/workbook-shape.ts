import { z } from 'zod';

/**
 * The shape of an Azure Monitor workbook as the workbook editor saves it (schema
 * Microsoft/Application-Insights-Workbooks schema/workbook.json): a `Notebook/1.0` document of
 * items, here the three kinds the provisioning workbook uses. Item contents keep their other
 * optional properties; what the portal needs to run a panel is required.
 */
const WORKSPACE = 'microsoft.operationalinsights/workspaces';

const textItem = z.strictObject({
  type: z.literal(1),
  name: z.string().min(1),
  content: z.strictObject({ json: z.string().min(1) }),
  customWidth: z.string().regex(/^\d+$/).optional(),
});

const queryItem = z.strictObject({
  type: z.literal(3),
  name: z.string().min(1),
  content: z.looseObject({
    version: z.literal('KqlItem/1.0'),
    query: z.string().min(1),
    size: z.number().int().min(0).max(4),
    title: z.string().min(1),
    queryType: z.literal(0), // Logs (KQL)
    resourceType: z.literal(WORKSPACE),
    timeContextFromParameter: z.string().min(1),
    visualization: z.enum(['table', 'timechart', 'barchart', 'linechart', 'areachart', 'tiles']),
  }),
  customWidth: z.string().regex(/^\d+$/).optional(),
});

const parameter = z.looseObject({
  id: z.uuid(),
  version: z.literal('KqlParameterItem/1.0'),
  name: z.string().regex(/^[A-Za-z]\w*$/),
  type: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(5)]),
  query: z.string().min(1).optional(),
});

const parametersItem = z.strictObject({
  type: z.literal(9),
  name: z.string().min(1),
  content: z.looseObject({
    version: z.literal('KqlParameterItem/1.0'),
    parameters: z.array(parameter).min(1),
  }),
});

export const workbookShape = z.strictObject({
  version: z.literal('Notebook/1.0'),
  items: z.array(z.discriminatedUnion('type', [textItem, queryItem, parametersItem])).min(1),
  fallbackResourceIds: z.array(z.string().min(1)).length(1),
  $schema: z.url().optional(),
});

export type Workbook = z.infer<typeof workbookShape>;
export type WorkbookQueryItem = z.infer<typeof queryItem>;
export type WorkbookParameter = z.infer<typeof parameter>;

/** The query panels of a workbook. */
export function queryItems(workbook: Workbook): WorkbookQueryItem[] {
  return workbook.items.filter((item): item is WorkbookQueryItem => item.type === 3);
}

/** The parameters of a workbook, from all its parameter items. */
export function parameters(workbook: Workbook): WorkbookParameter[] {
  return workbook.items.flatMap((item) => (item.type === 9 ? item.content.parameters : []));
}
