// Who a request made with an API key acts as: what apiKeys.resolve finds and the key cache keeps.
export interface KeyContext {
  keyId: string;
  accountId: string;
  name: string;
  scopes: string[];
  userId: string;
  idpUserId: string;
}
