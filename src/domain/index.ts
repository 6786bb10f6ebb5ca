export * from './errors';
export * from './logger';
export * from './account';
export * from './group';
export * from './membership-plan';
export * from './membership-comparison';
export * from './last-logon';
export * from './nested-groups';
