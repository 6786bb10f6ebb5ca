// Parameters of main.bicep for `azd up` / `azd provision`. azd passes its environment (.azure/<env>/.env)
// to the compiler, so each readEnvironmentVariable() below reads an azd setting: `azd env set NAME value`.
// The compiler checks every value here against main.bicep (name, type, allowed values, bounds), which
// a JSON parameters file with azd's string substitution cannot get.
using 'main.bicep'

param environmentName = readEnvironmentVariable('AZURE_ENV_NAME')
param location = readEnvironmentVariable('AZURE_LOCATION')

// azd sets AZURE_PRINCIPAL_ID to the signed-in user; empty: nobody gets the right to enter secrets.
param operatorPrincipalId = readEnvironmentVariable('AZURE_PRINCIPAL_ID', '')
param operatorPrincipalType = readEnvironmentVariable('AZURE_PRINCIPAL_TYPE', 'User')

// Where the alerts go (required): `azd env set ALERT_EMAIL ops@contoso.com`.
param alertEmailAddress = readEnvironmentVariable('ALERT_EMAIL')

// The Durable backend: the Durable Task Scheduler unless `azd env set DURABLE_BACKEND storage`.
param durableBackend = readEnvironmentVariable('DURABLE_BACKEND', 'scheduler')

param enableEntraAuth = bool(readEnvironmentVariable('ENABLE_ENTRA_AUTH', 'false'))
param apiClientId = readEnvironmentVariable('API_CLIENT_ID', '')

// One object per connector, as in PROVISIONING_CONNECTORS (README, Configuration). Secrets are named
// (auth.tokenSecret, auth.passwordSecret, clientSecretName), never given: their values go into Key
// Vault with the commands in the CONNECTOR_SECRET_COMMANDS output. Replace these examples.
param connectors = [
  {
    name: 'hr-app'
    kind: 'scim'
    baseUrl: 'https://hr.example.com'
    auth: {
      type: 'bearer'
      tokenSecret: 'hr-app-scim-token'
    }
    importSchedule: '0 0 2 * * *'
    importOverwriteExisting: false
  }
  {
    name: 'entra'
    kind: 'graph'
    tenantId: '00000000-0000-0000-0000-000000000000'
    clientId: '11111111-1111-1111-1111-111111111111'
    clientSecretName: 'entra-client-secret'
    upnDomain: 'contoso.com'
    importSchedule: '0 30 2 * * *'
  }
]
