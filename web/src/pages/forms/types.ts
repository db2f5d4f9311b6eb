// A signup form as the JSON API answers it (GET /app/api/forms, /forms/:id with url and embed).
export interface Form {
  id: string;
  name: string;
  type: 'hosted' | 'embedded' | 'popup';
  group_ids: string[];
  double_opt_in: boolean;
  fields: { key: string; label: string; required: boolean }[];
  success_message: string;
  redirect_url: string | null;
  active: boolean;
  stats: { views: number; submissions: number; confirmations: number };
  created_at: string;
  updated_at: string;
}
export type FormWithEmbed = Form & { url: string; embed: string };
